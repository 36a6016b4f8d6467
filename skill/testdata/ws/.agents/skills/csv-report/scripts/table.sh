#!/bin/sh
# Prints a CSV file as a Markdown table (fixture; never run by the loader).
column -s, -t "$1"
