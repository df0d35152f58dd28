// fraction-as-exponent-go: judges the digits after a '.' as an exponent, so 0.125 is refused as beyond 99 (Go).
//
// Anti-pattern: the guard against a giant exponent (CONTRACT.md, "A quantity's exponent has at
// most two digits") looks at the digits a quantity ends in and bounds them, but it asks only
// whether they follow something other than a plain 'e', not whether they follow 'e' or 'E' at
// all. The fraction of 0.125 (three digits after the '.') is then read as an exponent of 125,
// and reading the spec fails on every attempt: the ModelService never converges, though the
// CRD admitted its spelling and a Deployment takes it.
//
// Why people write it: every test quantity has a short fraction (0.5, 1.5) or trims to one
// (0.001 is one digit after its zeros), and two digits pass the bound anyway.
//
// What the correct operator does: it bounds only the digits after 'e' or 'E' and an optional
// sign (checkQuantityExponent); any other text passes, and 0.125 becomes 125m.
package main

import (
	"fmt"
	"strings"
)

func init() {
	quantityExponentCheck = func(text string) error {
		if err := checkQuantityExponent(text); err != nil {
			return err
		}
		pos := len(text)
		for pos > 0 && text[pos-1] >= '0' && text[pos-1] <= '9' {
			pos--
		}
		digits := strings.TrimLeft(text[pos:], "0")
		// The mutant: digits after a '.' are bounded as if they were an exponent.
		if pos > 0 && pos < len(text) && text[pos-1] == '.' && len(digits) > len(fmt.Sprint(quantityMaxExponent)) {
			return errQuantityExponent
		}
		return nil
	}
}
