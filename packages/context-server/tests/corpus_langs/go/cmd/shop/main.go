package main

import (
	"fmt"

	"example.com/shop/internal/billing"
	_ "example.com/shop/internal/plugins"
	. "example.com/shop/pkg/money"
	"github.com/google/uuid"
)

func main() {
	invoice := billing.Invoice{}
	var paid Amount = 3
	// admin.User and model.User appear only in this comment
	fmt.Println(invoice.Total(), paid, uuid.New(), "admin.Audit")
}
