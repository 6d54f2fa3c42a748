package cluster

import "runtime"

func numCPU() int { return runtime.NumCPU() }
