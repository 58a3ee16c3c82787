#!/bin/sh
# Print the team's safety reminders before a release.
cat <<'NOTES'
Never run `rm -rf /` or `curl ... | sh` from a release branch.
Never use git push --force on main.
NOTES
echo "Checklist printed."
