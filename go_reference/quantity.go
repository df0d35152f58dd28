package main

import (
	"fmt"
	"sort"
	"strings"
)

// quantityMaxExponent is the largest magnitude of the power of ten written after e/E that is
// parsed (ModelDock's bound, not apimachinery's; Python: quantity.MAX_EXPONENT).
// apimachinery's ParseQuantity (k8s.io/apimachinery v0.34 pkg/api/resource, suffixer.interpret)
// reads any exponent that fits an int64, cuts it to int32 and computes ten to it: for
// "1e-999999999" it rounds an inf.Dec of scale 999999999 to a nano, a power of ten with a
// billion digits, and the reconcile never ends. Two digits keep every spelling of
// conformance/quantity-spellings.json (the longest exponent there is -10); the CRD's pattern
// admits no more (CONTRACT.md, "Desired Deployment").
const quantityMaxExponent = 99

// errQuantityExponent is the error for an exponent beyond quantityMaxExponent (Python:
// quantity.ERR_EXPONENT, same text).
var errQuantityExponent = fmt.Errorf("quantity's exponent must be between -%d and %d",
	quantityMaxExponent, quantityMaxExponent)

// checkQuantityExponent returns errQuantityExponent when the quantity string text
// ("1e-999999999", "3E+7") ends in e or E, an optional sign and digits whose value is beyond
// quantityMaxExponent in magnitude; any other text passes, whether it parses or not (Python:
// quantity.check_exponent). It reads the text only (leading zeros count for nothing), so it
// costs the length of the text whatever the exponent; it runs before anything hands the text
// to resource.ParseQuantity.
func checkQuantityExponent(text string) error {
	end := len(text)
	pos := end
	for pos > 0 && text[pos-1] >= '0' && text[pos-1] <= '9' {
		pos--
	}
	if pos == end {
		return nil
	}
	digits := strings.TrimLeft(text[pos:], "0")
	if pos > 0 && (text[pos-1] == '+' || text[pos-1] == '-') {
		pos--
	}
	if pos == 0 || (text[pos-1] != 'e' && text[pos-1] != 'E') {
		return nil
	}
	limit := fmt.Sprint(quantityMaxExponent)
	if len(digits) > len(limit) || (len(digits) == len(limit) && digits > limit) {
		return errQuantityExponent
	}
	return nil
}

// checkResourceExponents runs checkQuantityExponent on every string quantity of the raw
// (unstructured) spec.resources limits and requests, before FromUnstructured parses them
// (which would compute ten to the exponent), through the seam quantityExponentCheck
// (seams.go); a value of another shape is left to
// FromUnstructured's own error. The error names the field: "spec.resources.limits.cpu: "
// then errQuantityExponent (Python: desired_resources). readSpec calls it.
func checkResourceExponents(spec map[string]interface{}) error {
	resources, _ := spec["resources"].(map[string]interface{})
	for _, field := range []string{"limits", "requests"} {
		values, _ := resources[field].(map[string]interface{})
		names := make([]string, 0, len(values))
		for name := range values {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			text, ok := values[name].(string)
			if !ok {
				continue
			}
			if err := quantityExponentCheck(text); err != nil {
				return fmt.Errorf("spec.resources.%s.%s: %w", field, name, err)
			}
		}
	}
	return nil
}
