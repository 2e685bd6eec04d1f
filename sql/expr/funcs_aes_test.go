package expr

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestAesRoundTrip encrypts seeded random inputs in every mode and key size, with and without an
// IV (and AAD for GCM), and checks the layout length and that decryption gives the input back.
// Encryptions without an IV must differ (random IVs).
func TestAesRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for _, mode := range []string{"ECB", "CBC", "GCM", "gcm"} {
		for _, keyLen := range []int{16, 24, 32} {
			for range 20 {
				key, input := randBytes(keyLen), randBytes(r.IntN(70))
				var iv, aad []byte
				switch mode {
				case "CBC":
					if r.IntN(2) == 0 {
						iv = randBytes(16)
					}
				case "GCM", "gcm":
					if r.IntN(2) == 0 {
						iv = randBytes(12)
					}
					aad = randBytes(r.IntN(5))
				}
				ct, err := aesEncrypt(input, key, mode, "DEFAULT", iv, aad)
				if err != nil {
					t.Fatalf("%s encrypt: %v", mode, err)
				}
				want := map[string]int{"ECB": (len(input)/16 + 1) * 16, "CBC": 16 + (len(input)/16+1)*16,
					"GCM": 12 + len(input) + 16, "gcm": 12 + len(input) + 16}[mode]
				if len(ct) != want {
					t.Fatalf("%s: %d input bytes gave %d, want %d", mode, len(input), len(ct), want)
				}
				if len(iv) > 0 && !bytes.Equal(ct[:len(iv)], iv) {
					t.Fatalf("%s: output does not start with the IV", mode)
				}
				if mode != "ECB" && len(iv) == 0 {
					ct2, err := aesEncrypt(input, key, mode, "DEFAULT", nil, aad)
					if err != nil || bytes.Equal(ct, ct2) {
						t.Fatalf("%s: two encryptions without an IV gave the same bytes (err %v)", mode, err)
					}
				}
				pt, err := aesDecrypt(ct, key, mode, "DEFAULT", aad)
				if err != nil || !bytes.Equal(pt, input) {
					t.Fatalf("%s: decrypt gave %x, %v; want %x", mode, pt, err, input)
				}
			}
		}
	}
}
