"""What the API and the worker both trust: secrets and their keys, signatures, the guard."""
