import Ripple
print("placeholder")
