// two-digit-exponent-go: refuses every two-digit exponent (1E99, 1e10) as beyond 99 (Go).
//
// Anti-pattern: the guard against a giant exponent (CONTRACT.md, "A quantity's exponent has at
// most two digits") bounds the number of the exponent's digits with one comparison off by one:
// as many digits as the bound has counts as too many. Every exponent of two digits is then
// refused, 1e10 as much as 1E99, though the CRD's pattern admits two digits and the API server
// stores such a quantity in a Deployment (1E99 as spelled, 1e10 as 10e9): reading the spec
// fails on every attempt and the ModelService never converges.
//
// Why people write it: every quantity in the usual tests has a one-digit exponent (5e8, 1e-3)
// or none, so the boundary is never reached.
//
// What the correct operator does: it refuses only an exponent beyond 99 in magnitude, three
// digits or more after leading zeros (checkQuantityExponent), and 1E99 reaches the Deployment
// as the API server stores it (noop-stable[exponent-spelling]).
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
		end := len(text)
		pos := end
		for pos > 0 && text[pos-1] >= '0' && text[pos-1] <= '9' {
			pos--
		}
		digits := strings.TrimLeft(text[pos:], "0")
		if pos > 0 && pos < end && (text[pos-1] == '+' || text[pos-1] == '-') {
			pos--
		}
		// The mutant: as many digits as quantityMaxExponent has already count as beyond it.
		if pos > 0 && (text[pos-1] == 'e' || text[pos-1] == 'E') && len(digits) >= len(fmt.Sprint(quantityMaxExponent)) {
			return errQuantityExponent
		}
		return nil
	}
}
