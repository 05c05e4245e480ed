package database

// SmallBuildDisabledOptimizers is smallBuildDisabledOptimizers, for the benchmark of what they cost.
var SmallBuildDisabledOptimizers = smallBuildDisabledOptimizers
