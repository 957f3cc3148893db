// Package money holds amounts in cents.
package money

import "fmt"

// Amount is a sum of money in cents.
type Amount int64

func (a Amount) String() string {
	return fmt.Sprintf("%d.%02d", a/100, a%100)
}
