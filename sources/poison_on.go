//go:build weirpoison

package sources

// poisonFreed overwrites a released, kept buffer so that a reader still using it sees
// garbage (0x5a5a5a5a5a5a5a5a as an id) rather than the values it expected (see idBuffers).
func poisonFreed(b []byte) {
	for i := range b {
		b[i] = 0x5a
	}
}
