package com.shop.model;

import com.shop.util.Entity;
import java.util.function.Function;

@Entity
@SuppressWarnings("Customer")
public abstract class Audit<T extends Order> implements Comparable<Audit<T>> {
    protected Function<LineItem, String> describe = item -> item.toString();

    public abstract T target();

    @Override
    public int compareTo(Audit<T> other) {
        return 0;
    }

    private final Object lock = new Object() {
        @Override
        public String toString() {
            return "Customer";
        }
    };
}
