// Package session measures programs on a target: it owns what every measuring command does between its flags and
// its view. A Plan is what the jobs of one command share (the program, the options, where the artifact goes); Open
// and Devices open the targets a command names, a device each where the flags name several; Hold holds a device's
// lease for a run; Run measures jobs in one session, their processes alternating, with an optional stopping rule
// (Sequential, compare's --budget); Confirm reruns what a gate flagged beside the baseline's program. What comes
// back is artifacts, which package analysis judges and the commands render: no cobra, no rendering here.
package session
