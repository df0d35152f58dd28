package main

// Seams: the package-level variables through which go_reference calls the few functions a Go
// mutant (harness/mutants/go/) replaces. The real code calls the variable, never the function
// directly; a mutant's func init(), added to package main only in the mutant's build (go build
// -overlay, harness/mutants/gobuild.py), assigns it another function. go_reference itself
// carries no mutant code.

// processConfig reads the process configuration from the environment (configFromEnv:
// CONTRACT.md, "Process"), once, in main. Used by mutant single-worker-go (controller-runtime's
// one worker when MAX_CONCURRENT_RECONCILES is unset, no request timeout).
var processConfig = configFromEnv
