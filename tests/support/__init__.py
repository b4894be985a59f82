"""What the tests share beside fixtures, imported as support.<module>."""
