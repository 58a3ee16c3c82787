#!/bin/sh
# Write the image to the SD card.
set -e
IMG=out/rpi.img
dd if="$IMG" of=/dev/sdb bs=4M status=progress conv=fsync
sync
