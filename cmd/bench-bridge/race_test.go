//go:build race

package main

func init() { cliBuildFlags = append(cliBuildFlags, "-race") }
