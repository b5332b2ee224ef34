// Command bench-bridge measures what one call across a script <-> host boundary costs on real devices, and how far
// that is from the floor: the same cases written directly against the QuickJS C API.
package main

import "os"

func main() { os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr)) }
