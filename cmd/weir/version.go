package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the release this binary was built as; release builds set it with
// -ldflags "-X main.version=v1.2.3". Unset, it is the module version Go recorded (a
// `go install ...@v1.2.3` build) or "devel".
var version string

// versionString is `weir --version`'s line: the release, the Go toolchain and platform, and
// the Spark version the server reports to clients unless --spark-version says otherwise.
func versionString(sparkVersion string) string {
	return fmt.Sprintf("weir %s (%s %s/%s; Spark Connect, reports Spark %s)", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, sparkVersion)
}

// buildVersion is the release (weir_build_info's version label too).
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
