package main

import "time"

func secondsDuration(s int) time.Duration { return time.Duration(s) * time.Second }
