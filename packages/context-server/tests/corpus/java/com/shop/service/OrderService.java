package com.shop.service;

import com.shop.model.Order;
import com.shop.model.*;
import static com.shop.util.Strings.join;

public class OrderService {
    private Order order;
    private Address shipping; // Address comes through the wildcard import; Product only here
    private com.shop.util.Money total;

    public void run() {
        class Helper {
            String name = join("a", "b");
        }
        Helper helper = new Helper();
        Runnable task = () -> System.out.println("Product");
    }
}
