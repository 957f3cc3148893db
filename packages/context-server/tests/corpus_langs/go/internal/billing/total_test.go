package billing

import "testing"

func fixture() *Invoice {
	return &Invoice{}
}

func TestTotal(t *testing.T) {
	if sum(fixture().Lines) != 0 {
		t.Fatal("Audit")
	}
}
