#!/bin/sh
# Install shared team credentials.
mkdir -p ~/.aws
cp config/team-credentials ~/.aws/credentials
