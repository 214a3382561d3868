package api

import (
	"crypto/rand"
	"crypto/sha256"
)

// KeyPrefix starts every API key.
const KeyPrefix = "pk_"

// KeyLength is the length of a whole key: pk_ and 40 alphanumerics.
const KeyLength = len(KeyPrefix) + 40

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// GenerateKey returns a new random key from the CSPRNG.
func GenerateKey() string {
	return KeyPrefix + RandomString(40, keyAlphabet)
}

// RandomString returns n characters drawn uniformly from alphabet (at most
// 256 characters long) with the CSPRNG, by rejection sampling.
func RandomString(n int, alphabet string) string {
	limit := 256 - 256%len(alphabet)
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = rand.Read(buf) // never fails (crypto/rand.Read)
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out)
}

// WellFormedKey reports whether k has the form of a key; a malformed key is
// refused without touching the database.
func WellFormedKey(k string) bool {
	if len(k) != KeyLength || k[:len(KeyPrefix)] != KeyPrefix {
		return false
	}
	for i := len(KeyPrefix); i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// HashKey returns what the store keeps of a key.
func HashKey(k string) [32]byte { return sha256.Sum256([]byte(k)) }

// KeyDisplayPrefix is what `key list` shows of a key: its first 8 characters.
func KeyDisplayPrefix(k string) string { return k[:8] }
