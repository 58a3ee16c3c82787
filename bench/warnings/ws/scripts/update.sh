#!/bin/bash
# Self-update.
u="https://updates.example.com/latest.sh"
bash -c "$(wget -qO- "$u")"
