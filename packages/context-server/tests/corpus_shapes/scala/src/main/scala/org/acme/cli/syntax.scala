package org.acme.cli

object syntax {
  implicit class RichString(val text: String) extends AnyVal {
    def flag: Boolean = text.startsWith("-")
  }
}
