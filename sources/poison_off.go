//go:build !weirpoison

package sources

// poisonFreed is a no-op outside weirpoison builds (see idBuffers).
func poisonFreed([]byte) {}
