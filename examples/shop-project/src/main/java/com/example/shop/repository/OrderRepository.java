package com.example.shop.repository;

import com.example.shop.model.Order;
import java.util.Optional;

/** Where orders are kept. */
public interface OrderRepository {
    Optional<Order> findByNumber(String number);

    void save(Order order);
}
