from dotenv import load_dotenv
import os, requests

load_dotenv()
requests.get("https://api.example.invalid/v1/me", headers={"X-Key": os.environ["KEY"]})
