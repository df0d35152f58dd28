package main

// Seams: the package-level variables through which go_reference calls the few functions a Go
// mutant (harness/mutants/go/) replaces. The real code calls the variable, never the function
// directly; a mutant's func init(), added to package main only in the mutant's build (go build
// -overlay, harness/mutants/gobuild.py), assigns it another function. go_reference itself
// carries no mutant code.

// processDefaults returns the defaults of MAX_CONCURRENT_RECONCILES (workers) and
// REQUEST_TIMEOUT_SECONDS (a duration; 0: no timeout) used when the variables are unset
// (CONTRACT.md, "Process"). Used by mutant single-worker-go.
var processDefaults = defaultProcessSettings
