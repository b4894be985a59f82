"""The benchmark's floor: bare Flask that parses a JSON body and answers a fixed Plant.

It runs under the same gunicorn settings as the service, so the ratio of the two measures
what the service's own work costs.
"""

from flask import Flask, request

app = Flask(__name__)


@app.route("/plants", methods=["GET", "POST"])
@app.route("/plants/<plant_id>", methods=["GET"])
@app.route("/events", methods=["GET"])
def plants(plant_id=None):
    """Parse the body when there is one; answer the same Plant whatever was asked."""
    if request.method == "POST":
        request.get_json()
    return {"name": "Monstera", "tag": "tropical"}
