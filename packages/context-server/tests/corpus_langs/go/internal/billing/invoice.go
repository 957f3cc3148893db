package billing

import "example.com/shop/internal/model"

// Invoice is a list of lines.
type Invoice struct {
	Lines []model.Line
}
