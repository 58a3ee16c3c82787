#!/bin/sh
# Install the vendor CLI.
set -e
echo "Installing..."
curl -fsSL https://cli.example.com/install.sh | sudo bash
echo "Done."
