// Package jepsen is the fleet's fault harness: crawler client processes
// offer the pages of near-duplicate groups to a shared repository (both
// Redis backends, on one server and on a Redis Cluster with SingleSlot and
// with Spread), each group's copies at about the same moment from
// different processes, while the harness kills and stops clients mid-call,
// drops replies, holds replicas behind and fails primaries over. Each
// client writes every verdict it is acknowledged as it gets it; after the
// faults heal, the checker compares them with what the repository keeps:
// no group keeps two pages, no verdict names the page itself or a page
// never offered, no page acknowledged as kept is lost with ReplicaAck, every
// kept page is answered as its own and matched by a copy, and every client
// made progress after each fault healed.
//
// The tests (jepsen_test.go) run a short sample in CI and the whole matrix
// with -long; docs/fleet.md gives the command and what it measured.
package jepsen
