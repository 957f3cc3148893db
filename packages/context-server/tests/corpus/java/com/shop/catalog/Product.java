package com.shop.catalog;

import com.shop.util.*;

@Entity
public interface Product {
    Money price();
}
