package com.shop.sc

trait Shape {
  def area: Double
}

object Shapes {
  val unit: Shape = Circle(1.0)
}

case class Circle(r: Double) extends Shape {
  def area: Double = r * r
}
