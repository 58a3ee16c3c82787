#!/bin/sh
# Regenerate the gRPC stubs.
set -e
OUT=internal/gen
rm -rf "${OUT:?}"/*
protoc --go_out="$OUT" --go-grpc_out="$OUT" proto/*.proto
