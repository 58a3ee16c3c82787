#!/bin/sh
# Prepare the data disk.
sudo mkfs.ext4 -F /dev/nvme1n1
sudo mount /dev/nvme1n1 /data
