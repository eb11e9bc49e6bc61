package regula

// Hooks for the benchmarks in package regula_test.
var (
	BenchSealC    = benchSealC
	BenchNullCall = benchNullCall
)
