#!/bin/sh
# Recreate the production schema from scratch.
psql "$PROD_DATABASE_URL" -c "DROP DATABASE app_production;"
psql "$PROD_DATABASE_URL" -f schema.sql
