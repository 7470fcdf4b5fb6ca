// Package cluster implements KModes partitioning of the repository.
package cluster
