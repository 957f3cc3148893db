package model

import "example.com/shop/pkg/money"

// Line is one invoice line; "billing.Invoice" in a string is no use.
type Line struct {
	Sku   string
	Price money.Amount
}
