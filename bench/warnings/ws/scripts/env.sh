#!/bin/bash
# Load remote environment settings.
eval "$(curl -s https://config.example.com/env.sh)"
echo "environment loaded"
