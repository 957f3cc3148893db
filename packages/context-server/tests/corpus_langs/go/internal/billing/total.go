package billing

import (
	"example.com/shop/internal/model"
	cash "example.com/shop/pkg/money"
)

// Total adds up the invoice.
func (i *Invoice) Total() cash.Amount {
	return sum(i.Lines)
}

func sum(lines []model.Line) cash.Amount {
	var total cash.Amount
	for _, line := range lines {
		total += line.Price
	}
	return total
}
