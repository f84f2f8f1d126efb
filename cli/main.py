def main():
    print("steth")
