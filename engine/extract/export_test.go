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
