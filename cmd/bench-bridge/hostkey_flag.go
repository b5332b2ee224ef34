package main

import "strings"

// joinAcceptHostKey lets --accept-host-key take its fingerprint as the next word (--accept-host-key SHA256:...).
// The flag may also stand alone, which pflag allows only by never taking the next word: so a fingerprint that
// follows it is joined to it here. A word that is no fingerprint stays what it was (a target name).
func joinAcceptHostKey(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--accept-host-key" && i+1 < len(args) && strings.HasPrefix(args[i+1], "SHA256:") {
			a, i = a+"="+args[i+1], i+1
		}
		out = append(out, a)
	}
	return out
}
