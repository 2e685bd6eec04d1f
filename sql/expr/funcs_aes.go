package expr

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// aes_encrypt, aes_decrypt and try_aes_decrypt: Spark's AesEncrypt / AesDecrypt / TryAesDecrypt
// (ExpressionImplUtils.aesInternal over Java's "AES/<mode>/<padding>" ciphers).
//
//	aes_encrypt(input, key[, mode = 'GCM'[, padding = 'DEFAULT'[, iv = ''[, aad = '']]]])
//	aes_decrypt(input, key[, mode = 'GCM'[, padding = 'DEFAULT'[, aad = '']]])
//
// The omitted arguments are filled in, so the column name shows all of them as Spark's does
// (aes_encrypt(Spark, k, GCM, DEFAULT, , )). Mode and padding are case-insensitive: GCM takes
// padding DEFAULT or NONE, ECB and CBC take DEFAULT or PKCS (PKCS#5). The byte layouts are Java's:
// GCM is 12-byte IV + ciphertext + 16-byte tag, CBC is 16-byte IV + ciphertext, ECB is the bare
// ciphertext. Without an IV, GCM and CBC draw a random one. Only GCM takes AAD; decrypting ECB
// ignores it. Every failure of the cipher is INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR with Java's
// detail text; try_aes_decrypt turns every runtime failure into NULL.

func init() {
	registerScalar(2, 6, bindAesEncrypt, "aes_encrypt")
	registerScalar(2, 5, bindAesDecrypt, "aes_decrypt", "try_aes_decrypt")
}

var binType = sqltypes.BinaryType

// aesDefaults appends the omitted trailing arguments (mode, padding, then empty binaries).
func aesDefaults(args []Expr, n int) []Expr {
	defaults := []Expr{NewLiteral("GCM", strType), NewLiteral("DEFAULT", strType)}
	out := append([]Expr(nil), args...)
	for i := len(out); i < n; i++ {
		if i-2 < len(defaults) {
			out = append(out, defaults[i-2])
		} else {
			out = append(out, NewLiteral("", strType))
		}
	}
	return out
}

func bindAesEncrypt(name string, args []Expr, opts Options) (Expr, error) {
	args = aesDefaults(args, 6)
	cs, err := coerceArgs(name, args, opts, binType, binType, strType, strType, binType, binType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, binType, func(_ *Context, a []any) (any, error) {
		return aesEncrypt(a[0].([]byte), a[1].([]byte), a[2].(string), a[3].(string), a[4].([]byte), a[5].([]byte))
	})
	f.text = callText(name, args)
	return f, nil
}

func bindAesDecrypt(name string, args []Expr, opts Options) (Expr, error) {
	args = aesDefaults(args, 5)
	cs, err := coerceArgs(name, args, opts, binType, binType, strType, strType, binType)
	if err != nil {
		return nil, err
	}
	try := name == "try_aes_decrypt"
	f := strict(name, cs, binType, func(_ *Context, a []any) (any, error) {
		out, err := aesDecrypt(a[0].([]byte), a[1].([]byte), a[2].(string), a[3].(string), a[4].([]byte))
		if err != nil && try {
			return nil, nil
		}
		return out, err
	})
	f.null = f.null || try
	f.text = callText(name, args)
	return f, nil
}

type aesMode int

const (
	aesECB aesMode = iota
	aesCBC
	aesGCM
)

var aesModeNames = [...]string{aesECB: "ECB", aesCBC: "CBC", aesGCM: "GCM"}

const (
	gcmIVLen  = 12
	gcmTagLen = 16
)

// aesSetup checks the key length, then the mode and padding, in Spark's order.
func aesSetup(key []byte, mode, padding string) (cipher.Block, aesMode, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, 0, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.AES_KEY_LENGTH", "22023",
			"The value of parameter(s) `key` in `aes_encrypt`/`aes_decrypt` is invalid: expects a binary value with 16, 24 or 32 bytes, but got %d bytes.", len(key))
	}
	m, p := strings.ToUpper(mode), strings.ToUpper(padding)
	var am aesMode
	switch {
	case m == "ECB" && (p == "DEFAULT" || p == "PKCS"):
		am = aesECB
	case m == "CBC" && (p == "DEFAULT" || p == "PKCS"):
		am = aesCBC
	case m == "GCM" && (p == "DEFAULT" || p == "NONE"):
		am = aesGCM
	default:
		return nil, 0, sparkerr.Newf(sparkerr.SparkRuntimeException, "UNSUPPORTED_FEATURE.AES_MODE", "0A000",
			"The feature is not supported: AES-%s with the padding %s by the `aes_encrypt`/`aes_decrypt` function.", mode, padding)
	}
	block, err := aes.NewCipher(key)
	if err != nil { // unreachable: the length is checked above
		return nil, 0, aesCryptoError(err.Error())
	}
	return block, am, nil
}

func aesCryptoError(detail string) error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR", "22023",
		"The value of parameter(s) `expr`, `key` in `aes_encrypt`/`aes_decrypt` is invalid: detail message: %s", detail)
}

// aesUnsupportedAAD names aes_encrypt for decryption too, as Spark's message does.
func aesUnsupportedAAD(m aesMode) error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "UNSUPPORTED_FEATURE.AES_MODE_AAD", "0A000",
		"The feature is not supported: `aes_encrypt` with AES-%s does not support additional authenticate data (AAD).", aesModeNames[m])
}

func aesEncrypt(input, key []byte, mode, padding string, iv, aad []byte) ([]byte, error) {
	block, m, err := aesSetup(key, mode, padding)
	if err != nil {
		return nil, err
	}
	if m == aesECB && len(iv) > 0 {
		return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "UNSUPPORTED_FEATURE.AES_MODE_IV", "0A000",
			"The feature is not supported: `aes_encrypt` with AES-%s does not support initialization vectors (IVs).", aesModeNames[m])
	}
	ivLen := aes.BlockSize
	if m == aesGCM {
		ivLen = gcmIVLen
	}
	if m != aesECB {
		if len(iv) == 0 {
			iv = make([]byte, ivLen)
			if _, err := rand.Read(iv); err != nil {
				return nil, aesCryptoError(err.Error())
			}
		} else if len(iv) != ivLen {
			return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.AES_IV_LENGTH", "22023",
				"The value of parameter(s) `iv` in `aes_encrypt`/`aes_decrypt` is invalid: supports 16-byte CBC IVs and 12-byte GCM IVs, but got %d bytes for %s.", len(iv), aesModeNames[m])
		}
	}
	if m != aesGCM && len(aad) > 0 {
		return nil, aesUnsupportedAAD(m)
	}
	switch m {
	case aesGCM:
		g, err := cipher.NewGCM(block)
		if err != nil {
			return nil, aesCryptoError(err.Error())
		}
		out := make([]byte, len(iv), len(iv)+len(input)+gcmTagLen)
		copy(out, iv)
		return g.Seal(out, iv, input, aad), nil
	case aesCBC:
		padded := pkcs5Pad(input)
		out := make([]byte, len(iv)+len(padded))
		copy(out, iv)
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[len(iv):], padded)
		return out, nil
	default:
		padded := pkcs5Pad(input)
		for i := 0; i < len(padded); i += aes.BlockSize {
			block.Encrypt(padded[i:], padded[i:])
		}
		return padded, nil
	}
}

func aesDecrypt(input, key []byte, mode, padding string, aad []byte) ([]byte, error) {
	block, m, err := aesSetup(key, mode, padding)
	if err != nil {
		return nil, err
	}
	switch m {
	case aesGCM:
		// Java's GCMParameterSpec(128, input, 0, 12) refuses a shorter input.
		if len(input) < gcmIVLen {
			return nil, aesCryptoError("Invalid buffer arguments")
		}
		if len(input) < gcmIVLen+gcmTagLen {
			return nil, aesCryptoError("Input data too short to contain an expected tag length of 16bytes")
		}
		g, err := cipher.NewGCM(block)
		if err != nil {
			return nil, aesCryptoError(err.Error())
		}
		out, err := g.Open(nil, input[:gcmIVLen], input[gcmIVLen:], aad)
		if err != nil {
			return nil, aesCryptoError("Tag mismatch!")
		}
		if out == nil {
			out = []byte{}
		}
		return out, nil
	case aesCBC:
		if len(input) < aes.BlockSize {
			return nil, aesCryptoError("IV buffer too short for given offset/length combination")
		}
		if len(aad) > 0 {
			return nil, aesUnsupportedAAD(m)
		}
		ct := input[aes.BlockSize:]
		if len(ct)%aes.BlockSize != 0 {
			return nil, aesPaddedLengthError()
		}
		out := make([]byte, len(ct))
		cipher.NewCBCDecrypter(block, input[:aes.BlockSize]).CryptBlocks(out, ct)
		return pkcs5Unpad(out)
	default: // ECB ignores AAD when decrypting, as Spark does.
		if len(input)%aes.BlockSize != 0 {
			return nil, aesPaddedLengthError()
		}
		out := make([]byte, len(input))
		for i := 0; i < len(input); i += aes.BlockSize {
			block.Decrypt(out[i:], input[i:])
		}
		return pkcs5Unpad(out)
	}
}

func aesPaddedLengthError() error {
	return aesCryptoError("Input length must be multiple of 16 when decrypting with padded cipher")
}

func pkcs5Pad(b []byte) []byte {
	n := aes.BlockSize - len(b)%aes.BlockSize
	out := make([]byte, len(b)+n)
	copy(out, b)
	for i := len(b); i < len(out); i++ {
		out[i] = byte(n)
	}
	return out
}

// pkcs5Unpad strips PKCS#5 padding; empty input decrypts to empty output, as with Java's cipher.
func pkcs5Unpad(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return []byte{}, nil
	}
	n := int(b[len(b)-1])
	if n == 0 || n > aes.BlockSize || !bytes.Equal(b[len(b)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, aesCryptoError("Given final block not properly padded. Such issues can arise if a bad key is used during decryption.")
	}
	return b[:len(b)-n], nil
}
