#!/bin/bash
# Clean the deployment target. TARGET_DIR comes from the environment.
echo "Cleaning $TARGET_DIR"
rm -rf "$TARGET_DIR"/*
echo "Clean."
