package extract

// What the external tests (package extract_test, which links the parsers)
// read of this package's insides.
var BuildDeps = buildDeps

const (
	EnmimeModule  = enmimeModule
	EnmimeVersion = enmimeVersion
	XnetModule    = xnetModule
	XnetVersion   = xnetVersion
)

var DebianPackage = debianPackage

// IdleWorkers is how many worker processes w keeps between calls.
func IdleWorkers(w *Workers) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle)
}
