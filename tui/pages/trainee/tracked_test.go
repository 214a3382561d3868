package trainee

import (
	"testing"
)

func TestFormatting(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 8421: "8,421", 1234567: "1,234,567", -4000: "-4,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("thousands(%d) = %q", n, got)
		}
	}
	for f, want := range map[float64]string{24: "24.0", 0: "0.0", 5.55: "5.5", 15.46: "15.5"} {
		if got := Grams(f); got != want { // one decimal always: a column aligns on the point
			t.Errorf("Grams(%v) = %q, want %q", f, got, want)
		}
	}
	for f, want := range map[float64]string{80: "80", 0.25: "0.25", 1.5: "1.5", 2.125: "2.13"} {
		if got := Quantity(f); got != want {
			t.Errorf("quantity(%v) = %q", f, got)
		}
	}
}
