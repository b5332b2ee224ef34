// Package history keeps every night of the nightly: artifacts recorded into a store with the commit, the night, the
// device and every number a series over nights needs (the ratio to ref_js_loop and its interval, each process's
// ratio, the raw median and its interval, instructions and allocations per op). Its one job is the store: adding
// to it, once per artifact, safely with several writers, and reading it back. What the series say (change points,
// noise) is package trend's.
//
// The store is one SQLite file by default (a pure-Go driver, so the binary stays static), or a PostgreSQL database
// named by a postgres:// URL for a lab whose runners all write to one history; both go through the same SQL.
package history
