#!/bin/sh
# Add our tools to the PATH for every new shell.
echo 'export PATH="$HOME/.storefront/bin:$PATH"' >> ~/.bashrc
echo 'eval "$(storefront completions bash)"' >> ~/.bashrc
