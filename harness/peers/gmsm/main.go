// gmsm-peer: SM4 in GCM, CCM, XTS (IEEE 1619 and GB/T 17964-2021 tweaks), CMAC,
// CTR and CBC as github.com/emmansun/gmsm computes them, for the project's
// differential tests (tests/test_gmsm_peer.py) and for bench.
//
// Serve mode (no arguments): one request per line on stdin, one answer per line
// on stdout.  Fields are separated by spaces; byte strings are hex, "-" for an
// empty one.  Answers are "ok" followed by hex fields, "fail" when a tag does
// not verify, or "err <message>" when gmsm refuses the request.
//
//	gcm-seal KEY IV TAGBYTES AAD PT    -> ok CT TAG
//	gcm-open KEY IV AAD CT TAG         -> ok PT | fail
//	ccm-seal KEY NONCE TAGBYTES AAD PT -> ok CT TAG
//	ccm-open KEY NONCE AAD CT TAG      -> ok PT | fail
//	xts-enc RULE KEY1||KEY2 TWEAK PT   -> ok CT   (RULE: ieee or gb)
//	xts-dec RULE KEY1||KEY2 TWEAK CT   -> ok PT
//	cmac KEY TAGBYTES MSG              -> ok TAG
//	ctr KEY IV DATA                    -> ok OUT  (the whole IV one big-endian counter)
//	cbc-enc KEY IV PT | cbc-dec KEY IV CT -> ok OUT (whole blocks, no padding)
//
// Bench mode: gmsm-peer bench OP SECONDS [BYTES], OP one of gcm-seal, gcm-open,
// ccm-seal, xts-enc-ieee, xts-enc-gb, xts-dec-ieee, xts-dec-gb, cmac, ctr, cbc-enc,
// cbc-dec: the operation on one buffer (64 KiB unless BYTES is given) over and
// over for SECONDS, then one line "OP BYTES bytes_per_second N".
package main

import (
	"bufio"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/emmansun/gmsm/cbcmac"
	gmsmcipher "github.com/emmansun/gmsm/cipher"
	"github.com/emmansun/gmsm/sm4"
)

var errAuth = errors.New("authentication failed")

// gcmAble is what gmsm's SM4 block offers beyond crypto/cipher's constructors:
// GCM with both a nonce length and a tag length of one's choice.  It is meant to
// be called by crypto/cipher, which checks the lengths first (gmsm's own GCM
// does not: a tag under 12 bytes seals but panics on opening), so newGCM checks
// them as crypto/cipher does.
type gcmAble interface {
	NewGCM(nonceSize, tagSize int) (cipher.AEAD, error)
}

const gcmMinTagSize, gcmMaxTagSize = 12, 16 // crypto/cipher.NewGCMWithTagSize's range

func newGCM(key []byte, nonceSize, tagSize int) (cipher.AEAD, error) {
	if tagSize < gcmMinTagSize || tagSize > gcmMaxTagSize {
		return nil, fmt.Errorf("GCM tags are %d-%d bytes in gmsm, not %d", gcmMinTagSize, gcmMaxTagSize, tagSize)
	}
	if nonceSize <= 0 {
		return nil, errors.New("GCM's IV must not be empty")
	}
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if g, ok := block.(gcmAble); ok {
		return g.NewGCM(nonceSize, tagSize)
	}
	switch {
	case nonceSize == 12:
		return cipher.NewGCMWithTagSize(block, tagSize)
	case tagSize == 16:
		return cipher.NewGCMWithNonceSize(block, nonceSize)
	}
	return nil, fmt.Errorf("this gmsm build has no GCM with a %d-byte IV and a %d-byte tag", nonceSize, tagSize)
}

func newCCM(key []byte, nonceSize, tagSize int) (cipher.AEAD, error) {
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return gmsmcipher.NewCCMWithNonceAndTagSize(block, nonceSize, tagSize)
}

func newAEAD(mode string, key, nonce []byte, tagSize int) (cipher.AEAD, error) {
	if mode == "gcm" {
		return newGCM(key, len(nonce), tagSize)
	}
	return newCCM(key, len(nonce), tagSize)
}

func seal(mode string, key, nonce []byte, tagSize int, aad, pt []byte) ([]byte, []byte, error) {
	a, err := newAEAD(mode, key, nonce, tagSize)
	if err != nil {
		return nil, nil, err
	}
	out := a.Seal(nil, nonce, pt, aad)
	return out[:len(pt)], out[len(pt):], nil
}

func open(mode string, key, nonce, aad, ct, tag []byte) ([]byte, error) {
	a, err := newAEAD(mode, key, nonce, len(tag))
	if err != nil {
		return nil, err
	}
	pt, err := a.Open(nil, nonce, append(append([]byte{}, ct...), tag...), aad)
	if err != nil {
		return nil, errAuth
	}
	return pt, nil
}

// newXTS is gmsm's XTS under key = K1 || K2 for one data unit's tweak.
func newXTS(rule string, decrypt bool, key, tweak []byte) (cipher.BlockMode, error) {
	if len(key)%2 != 0 {
		return nil, errors.New("an XTS key is two keys of one length")
	}
	k1, k2 := key[:len(key)/2], key[len(key)/2:]
	switch {
	case rule == "ieee" && !decrypt:
		return gmsmcipher.NewXTSEncrypter(sm4.NewCipher, k1, k2, tweak)
	case rule == "ieee":
		return gmsmcipher.NewXTSDecrypter(sm4.NewCipher, k1, k2, tweak)
	case rule == "gb" && !decrypt:
		return gmsmcipher.NewGBXTSEncrypter(sm4.NewCipher, k1, k2, tweak)
	case rule == "gb":
		return gmsmcipher.NewGBXTSDecrypter(sm4.NewCipher, k1, k2, tweak)
	}
	return nil, fmt.Errorf("unknown XTS tweak rule %q (ieee or gb)", rule)
}

func xts(rule string, decrypt bool, key, tweak, in []byte) ([]byte, error) {
	mode, err := newXTS(rule, decrypt, key, tweak)
	if err != nil {
		return nil, err
	}
	if len(in) < 16 {
		return nil, errors.New("an XTS data unit is at least 16 bytes")
	}
	out := make([]byte, len(in))
	// gmsm v0.44.0's XTS decryption on its 4-block path (its assembly; seen on amd64)
	// faults (SIGSEGV) when a data unit is 64k + 1..15 bytes: its batch loop takes
	// the block that ciphertext stealing needs.  So a partial last block is
	// decrypted by a second call with the last whole block; the decrypter carries
	// its tweak from one call to the next, so the result is the one-call result.
	cut := len(in)
	if tail := len(in) % 16; decrypt && tail != 0 {
		cut = len(in) - 16 - tail
	}
	if cut > 0 {
		mode.CryptBlocks(out[:cut], in[:cut])
	}
	if cut < len(in) {
		mode.CryptBlocks(out[cut:], in[cut:])
	}
	return out, nil
}

func cmac(key []byte, tagSize int, msg []byte) ([]byte, error) {
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if tagSize < 1 || tagSize > block.BlockSize() {
		return nil, fmt.Errorf("CMAC tag of %d bytes", tagSize)
	}
	return cbcmac.NewCMAC(block, tagSize).MAC(msg), nil
}

func ctr(key, iv, in []byte) ([]byte, error) {
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if len(iv) != block.BlockSize() {
		return nil, errors.New("the CTR IV is one block")
	}
	out := make([]byte, len(in))
	cipher.NewCTR(block, iv).XORKeyStream(out, in)
	return out, nil
}

func cbc(decrypt bool, key, iv, in []byte) ([]byte, error) {
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if len(iv) != block.BlockSize() || len(in)%block.BlockSize() != 0 {
		return nil, errors.New("CBC takes a one-block IV and whole blocks")
	}
	out := make([]byte, len(in))
	if decrypt {
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, in)
	} else {
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, in)
	}
	return out, nil
}

// request parses one line's fields: the operation's byte strings and numbers.
type request struct {
	fields []string
	err    error
}

func (r *request) bytes(i int) []byte {
	if r.err != nil {
		return nil
	}
	if i >= len(r.fields) {
		r.err = fmt.Errorf("field %d missing", i)
		return nil
	}
	if r.fields[i] == "-" {
		return []byte{}
	}
	b, err := hex.DecodeString(r.fields[i])
	if err != nil {
		r.err = fmt.Errorf("field %d: %v", i, err)
	}
	return b
}

func (r *request) number(i int) int {
	if r.err != nil {
		return 0
	}
	if i >= len(r.fields) {
		r.err = fmt.Errorf("field %d missing", i)
		return 0
	}
	n, err := strconv.Atoi(r.fields[i])
	if err != nil {
		r.err = fmt.Errorf("field %d: %v", i, err)
	}
	return n
}

func (r *request) word(i int) string {
	if r.err == nil && i >= len(r.fields) {
		r.err = fmt.Errorf("field %d missing", i)
	}
	if r.err != nil {
		return ""
	}
	return r.fields[i]
}

// answer runs one request; its results are the fields of the "ok" line.
func answer(line string) ([][]byte, error) {
	r := &request{fields: strings.Fields(line)}
	op := r.word(0)
	var out [][]byte
	var err error
	one := func(b []byte, e error) { out, err = [][]byte{b}, e }
	switch op {
	case "gcm-seal", "ccm-seal":
		key, nonce, tagSize, aad, pt := r.bytes(1), r.bytes(2), r.number(3), r.bytes(4), r.bytes(5)
		if r.err == nil {
			var ct, tag []byte
			ct, tag, err = seal(op[:3], key, nonce, tagSize, aad, pt)
			out = [][]byte{ct, tag}
		}
	case "gcm-open", "ccm-open":
		key, nonce, aad, ct, tag := r.bytes(1), r.bytes(2), r.bytes(3), r.bytes(4), r.bytes(5)
		if r.err == nil {
			one(open(op[:3], key, nonce, aad, ct, tag))
		}
	case "xts-enc", "xts-dec":
		rule, key, tweak, in := r.word(1), r.bytes(2), r.bytes(3), r.bytes(4)
		if r.err == nil {
			one(xts(rule, op == "xts-dec", key, tweak, in))
		}
	case "cmac":
		key, tagSize, msg := r.bytes(1), r.number(2), r.bytes(3)
		if r.err == nil {
			one(cmac(key, tagSize, msg))
		}
	case "ctr":
		key, iv, in := r.bytes(1), r.bytes(2), r.bytes(3)
		if r.err == nil {
			one(ctr(key, iv, in))
		}
	case "cbc-enc", "cbc-dec":
		key, iv, in := r.bytes(1), r.bytes(2), r.bytes(3)
		if r.err == nil {
			one(cbc(op == "cbc-dec", key, iv, in))
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("unknown operation %q", op)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, err
}

// call runs answer, turning a panic inside gmsm into an error for that line.
func call(line string) (out [][]byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("gmsm panicked: %v", p)
		}
	}()
	return answer(line)
}

func serve() error {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	for {
		line, readErr := in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			out, err := call(line)
			switch {
			case errors.Is(err, errAuth):
				fmt.Fprintln(w, "fail")
			case err != nil:
				fmt.Fprintf(w, "err %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			default:
				w.WriteString("ok")
				for _, b := range out {
					w.WriteByte(' ')
					if len(b) == 0 {
						w.WriteByte('-')
					} else {
						w.WriteString(hex.EncodeToString(b))
					}
				}
				w.WriteByte('\n')
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if readErr != nil {
			return nil
		}
	}
}

// benchOp returns one run of OP on a buffer of n bytes.
func benchOp(op string, n int) (func(), error) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	buf, out := make([]byte, n), make([]byte, n+16)
	iv := make([]byte, 16)
	block, err := sm4.NewCipher(key[:16])
	if err != nil {
		return nil, err
	}
	switch op {
	case "gcm-seal", "gcm-open", "ccm-seal":
		mode := op[:3]
		a, err := newAEAD(mode, key[:16], iv[:12], 16)
		if err != nil {
			return nil, err
		}
		if op == "gcm-open" {
			sealed := a.Seal(nil, iv[:12], buf, nil)
			return func() {
				if _, err := a.Open(out[:0], iv[:12], sealed, nil); err != nil {
					panic(err)
				}
			}, nil
		}
		return func() { a.Seal(out[:0], iv[:12], buf, nil) }, nil
	case "xts-enc-ieee", "xts-enc-gb", "xts-dec-ieee", "xts-dec-gb":
		rule := op[8:]
		decrypt := op[4:7] == "dec"
		if _, err := xts(rule, decrypt, key, iv, buf); err != nil {
			return nil, err
		}
		return func() {
			// one data unit of n bytes, its tweak encrypted anew as a disk sector's is
			m, _ := newXTS(rule, decrypt, key, iv)
			m.CryptBlocks(out[:n], buf)
		}, nil
	case "cmac":
		mac := cbcmac.NewCMAC(block, 16)
		return func() { mac.MAC(buf) }, nil
	case "ctr":
		return func() { cipher.NewCTR(block, iv).XORKeyStream(out[:n], buf) }, nil
	case "cbc-enc":
		return func() { cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[:n], buf) }, nil
	case "cbc-dec":
		return func() { cipher.NewCBCDecrypter(block, iv).CryptBlocks(out[:n], buf) }, nil
	}
	return nil, fmt.Errorf("unknown bench operation %q", op)
}

func bench(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return errors.New("usage: gmsm-peer bench OP SECONDS [BYTES]")
	}
	seconds, err := strconv.ParseFloat(args[1], 64)
	if err != nil || seconds <= 0 {
		return fmt.Errorf("SECONDS %q is not a positive number", args[1])
	}
	n := 64 << 10
	if len(args) == 3 {
		if n, err = strconv.Atoi(args[2]); err != nil || n < 16 || n%16 != 0 {
			return fmt.Errorf("BYTES %q is not a positive multiple of 16", args[2])
		}
	}
	run, err := benchOp(args[0], n)
	if err != nil {
		return err
	}
	run() // warm up
	limit := time.Duration(seconds * float64(time.Second))
	start := time.Now()
	var done int64
	for time.Since(start) < limit {
		run()
		done += int64(n)
	}
	elapsed := time.Since(start).Seconds()
	fmt.Printf("%s %d bytes_per_second %.0f\n", args[0], n, float64(done)/elapsed)
	return nil
}

func main() {
	var err error
	switch {
	case len(os.Args) == 1:
		err = serve()
	case os.Args[1] == "bench":
		err = bench(os.Args[2:])
	default:
		err = errors.New("usage: gmsm-peer (requests on stdin) | gmsm-peer bench OP SECONDS [BYTES]")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gmsm-peer:", err)
		os.Exit(2)
	}
}
