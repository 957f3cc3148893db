package org.acme.cli

trait Read[A] { def read(text: String): A }

object Read {
  implicit val intRead: Read[Int] = (text: String) => text.toInt
}
