//go:build !linux

package main

import "os"

// peakRSS is not measured outside Linux.
func peakRSS(*os.ProcessState) int64 { return 0 }
